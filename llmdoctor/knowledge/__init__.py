"""Pure knowledge: parsers, recognition tables and engine defaults, no I/O."""
