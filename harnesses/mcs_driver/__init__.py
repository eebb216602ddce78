"""The upstream MCS Python driver (mcs-driver-core) as a text-json strategy."""
