"""Webhooks, one wing: owners add, list, resume and remove them (manage.py); journal entries are
delivered to each, per webhook and in order (delivery.py); a body is signed, a URL checked and a
POST made (outbound.py). The Lambda entry point that hands AWS's events to the delivery is
kakeibo/sender.py."""
