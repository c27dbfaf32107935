"""The teaching side: the guided tour, the exercises, the index-building stepper and the Kaitai/ImHex templates.
Built on the read side; writes only the template files a user asks for."""
