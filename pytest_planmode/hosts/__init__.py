"""Hosts the kit starts to run an implementation the way its application
does (the mock Pi host for Pi extensions)."""
