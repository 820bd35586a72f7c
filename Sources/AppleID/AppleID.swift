// The AppleID module; see ../../README.md for the architecture.
