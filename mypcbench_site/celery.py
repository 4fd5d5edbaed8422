"""The Celery app. Embedded default: a filesystem broker (no server) under VAR_DIR; set
CELERY_BROKER_URL to use Redis or RabbitMQ."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")

app = Celery("mypcbench_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
