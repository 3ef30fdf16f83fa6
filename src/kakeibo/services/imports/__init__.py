"""Imports, one wing: a file prepared (its format detected, read into rows, its accounts matched or
created: prepare.py), compared with what earlier downloads of the same app imported (sync.py), and
written exactly once per row in batches (importer.py, which also exports). Reading other apps'
files is importformats/'s; the CSV format of our own is csvio.py."""
