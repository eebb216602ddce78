"""mcs-driver-core's native OpenAI extraction (see strategy.py)."""
