// The JOSE module; see ../../README.md for the architecture.
