"""Request and response models, one module per wing (accounts, slips, imports, ...) over base.py.
Requests forbid unknown fields and never coerce types.

Importers name the wing that defines a model (`from kakeibo.models.slips import SlipIn`); this
package itself offers nothing, so a cold start builds the model classes of the wings its request
uses, not all of them.

No `from __future__ import annotations` in the wings: with it, pydantic evaluates each of the ~500
field annotations from its string (one `compile` each), about 20 ms of every cold start.
"""
