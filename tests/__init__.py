"""The tests of modelscape: one package, mirroring the library; shared helpers in support/."""
