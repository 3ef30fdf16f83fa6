"""Files from other household-ledger apps (Money Forward ME and Zaim exports) and the CSV downloads
of card issuers and banks, read into the same rows as our own CSV format, so they import with the
same exactly-once rules (services/imports/importer.py). Reading only: what an import does with the
rows is the services'.

- detect: which format a file is (its header row, or ?format=)
- moneyforward, zaim: each app's columns and values -> slips (source.SourceRow)
- accounts: the apps' account names -> the ledger's accounts (matched, or created on request)
- statement: what the card and bank statements share (records, cells by column name, amounts and
  dates as the issuers write them, row identities); issuers/: one module per issuer family, and the
  registry of their formats and layout versions
"""
