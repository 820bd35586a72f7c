// The Storage module; see ../../README.md for the architecture.
