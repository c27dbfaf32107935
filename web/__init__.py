"""The web viewer: a small Flask app on the read-only engine (``rmq-inspect web STORE``).

``web.app.create_app`` builds it; ``pages`` renders HTML, ``api`` the same data as JSON, ``data`` turns engine
results into plain dicts both share, ``svg`` draws index chains, slot tables and heat strips server-side.
"""
