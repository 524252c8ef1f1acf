"""The dashboard's pages: thin views that parse parameters, call a read service or an action, and render.

Every view that calls a service goes through `errors.shows_errors`, so a WorkRailError (an unknown id,
a bad parameter) becomes a 404/400 page with its code, message and suggestion, never a 500.
"""
