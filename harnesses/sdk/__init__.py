"""The official SDKs' own stream accumulators, each wrapped as a strategy: the baseline."""
