"""paperkg: knowledge graphs of machine-learning research built from paper records."""

__version__ = "0.1.0"
