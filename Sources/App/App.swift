// The App module; see ../../README.md for the architecture.
