from django.apps import AppConfig


class WorkflowsAppConfig(AppConfig):
    name = "workflows_app"
    verbose_name = "Workflows"
