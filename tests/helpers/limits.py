"""Hang guards for the tests' subprocesses and sockets.

A guard stops a test that would otherwise never end; it is not a speed check (benchmarks/ measure
speed, as ratios within one run). So each bound sits far above what the guarded step takes on a
machine with twice its cores busy (CI shares its cores): a step that takes 10 s quiet and 40 s
there still has ten times that before the guard fires.
"""

HANG = 900  # seconds: a subprocess that runs pytest, the suite, a script or node
SOCKET = 120  # seconds: one read or connect on a loopback connection to the project's own server
