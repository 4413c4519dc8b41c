"""The application side of the referee: the parts that do I/O (files, clocks, plots).

Everything else under referee/ is pure; modules here join it to the outside world.
"""
