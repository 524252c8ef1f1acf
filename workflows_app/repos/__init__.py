"""Workflow sources from git (WORKRAIL_WORKFLOW_REPOS): fetching, pinning and the files at a pin.

`git.py` runs the git command line; `store.py` keeps each repository's objects, its pinned commit
(pins.json) and the files at that commit under $WORKRAIL_HOME/workflow-repos; `sync.py` fetches a
repository, checks its workflows as `validate_workflow` does and moves the pin, or says why not.
"""
