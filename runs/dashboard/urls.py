from django.urls import path

from runs.dashboard import connect_secret, pages, sessions

urlpatterns = [
    path("", sessions.sessions_list, name="home"),
    path("sessions/", sessions.sessions_list, name="sessions"),
    path("sessions/<str:session_id>/", sessions.session_page, name="session"),
    path("sessions/<str:session_id>/preferences", sessions.change_preferences, name="session_preferences"),
    path("runs/<str:run_id>/", sessions.run_page, name="run"),
    path("runs/<str:run_id>/cancel", sessions.cancel_run, name="run_cancel"),
    path("nodes/<str:node_id>/", pages.node_page, name="node"),
    path("nodes/<str:node_id>/fork", pages.fork_node, name="node_fork"),
    path("workflows/", pages.workflows, name="workflows"),
    path("workflows/<str:workflow_id>/", pages.workflow, name="workflow"),
    path("timings/", pages.timings, name="timings"),
    path("connect/", pages.connect, name="connect"),
    path("words/", pages.words, name="words"),
    path("connect/with-password", connect_secret.connect_with_password, name="connect_with_password"),
    path("favicon.ico", pages.favicon, name="favicon"),
    path("live/sessions", sessions.live_sessions, name="live_sessions"),
    path("live/sessions/<str:session_id>", sessions.live_session, name="live_session"),
]
