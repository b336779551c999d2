"""Hosts the kit starts to run an implementation the way its application
does (the real Pi runtime for Pi extensions)."""
