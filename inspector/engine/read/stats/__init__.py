"""Statistics of a store's log (``rmq-inspect stats``): counts, bytes, shares and a retention preview."""
