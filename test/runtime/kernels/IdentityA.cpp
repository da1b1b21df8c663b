// Two libraries exporting the same symbol with different results: the host
// backend must never hand out one for the other.
extern "C" int tuna_test_identity() { return 1; }
