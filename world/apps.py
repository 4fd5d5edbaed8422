from django.apps import AppConfig


class WorldConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "world"
    verbose_name = "Persona world"
