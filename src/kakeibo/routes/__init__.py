"""One Router per resource; route functions stay thin: parse, call service, format."""
