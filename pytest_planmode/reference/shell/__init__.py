"""Shell lexing and parsing shared by the reference's shell policies."""
