// See IdentityA.cpp.
extern "C" int tuna_test_identity() { return 2; }
