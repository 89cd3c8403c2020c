"""The panel's routes, one file per resource; `create_app` (panel/app.py) includes them in this order."""
from ligretto_vision.panel.routes import board, docs, disputes, enrollment, live, matches, pages, rounds, settings

ROUTERS = [docs.router, pages.router, live.router, matches.router, rounds.router, disputes.router,
           settings.router, enrollment.router, board.router]
