// The CryptoCore module; see ../../README.md for the architecture.
