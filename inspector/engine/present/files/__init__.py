"""The present room's view of the store's files other than the commitlog: a consume-queue, batch consume-queue or
index file as a hex window with named units (``filehex``). Imports the model, the present room's layout and the
parsers' schemas; never a front end."""
