"""Hardware: slap pads (edges → SlapEvent on the monotonic clock), and the announcers
(console, speech, LEDs, buzzer). Nothing here decides anything."""
