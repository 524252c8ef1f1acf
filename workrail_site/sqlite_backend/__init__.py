"""Django's SQLite backend, creating the database file owner-only (0600) when it first connects.

SQLite creates a missing database file with the process umask (0644, usually) and gives its -wal and
-shm files the same mode. Creating the file ourselves first, 0600, makes all three private. Done at
the first connection rather than when settings load, so a command that never touches the database
(validate_workflow, say) creates no database file.
"""
