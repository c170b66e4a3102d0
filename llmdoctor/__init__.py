"""llmdoctor: find why a self-hosted LLM server gets slow, prove it, and fix it."""
__version__ = "0.1.0"
