"""Built-in checks: one small module per cause family. Loaded by file, see llmdoctor.plugins."""
