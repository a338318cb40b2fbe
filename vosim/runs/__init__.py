"""Turning parameters into results: the command line and the result store."""
