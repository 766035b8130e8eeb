"""The designer's studio (`dfsim studio`): a local page where a game's controls move its win rate and
its interval, played on the throw bank while the user watches (server.py serves it on 127.0.0.1,
api.py answers the page, play.py and throwlab.py are the background work)."""
