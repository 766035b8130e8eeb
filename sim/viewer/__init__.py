"""Seeing throws: trajectory recording, 3-D replay pages, GIF/MP4 clips and the interactive run report.

A presentation layer beside the experiments: it reads the engine (a Thrower and its world) and the
output folder of a run, and writes files a person opens; nothing here changes an outcome or a record.
"""
