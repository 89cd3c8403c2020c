"""The table panel: web pages for phones, a JSON API, the live video and the match history.

- app:      assembles the FastAPI app from routes/ (one router per resource: pages, live
            picture and events, matches, rounds, disputes, settings, enrollment, docs)
- context:  the Panel (config, hub, store, feed, keeper) the routes read
- keeper:   turns the hub's events into live tallies, rounds, disputes and matches
- store:    SQLite: history, settings, disputes, the change log
- settings: the set-up pages' models and the table's settings over the config defaults
- pin:      the table's PIN (salted hash, guessing slowed down per phone)
- text:     names in any script: what is refused, headers, CSV cells, the video's ASCII names
- changelog: the change log in sentences ("Anna changed the goal from 99 to 300 points")
- guard:    body size cap and clear 4xx messages
- server:   `ligretto-vision serve`: feed + keeper + panel in one process
"""
