"""Salvage: a damaged store's readable records copied into a new store a broker starts on and keeps whole.

``plan`` classifies every span of the commitlog (``spans``: from verify's findings, the segment grid's holes and
a torn tail; ``lost``: what the consume queues say a lost span held; ``replica``: good bytes from another copy);
``filler`` designs the records that stand in a lost span; ``writeout`` writes the new store (never the original).
It imports the read room (the walk, the queues), its maintain siblings (verify's findings, write's record encoder,
rebuild for the new queues and index) and the model; nothing imports it but the face.
"""
