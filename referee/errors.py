"""The base of every error a user can fix. The command line prints its message and exits 1.

Every package's specific errors (an unknown card, a malformed calibration file, a missing
camera) subclass `UserError`, so the message must say what to do.
"""


class UserError(Exception):
    """A problem with input or setup that the user can fix; the message says how."""
