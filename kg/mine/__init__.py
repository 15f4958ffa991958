"""Corpus-scale terminology mining: the second, machine-mined tier of the vocabulary (`kg mine`)."""
