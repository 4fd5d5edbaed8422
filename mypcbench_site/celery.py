"""The Celery app. Embedded default: a filesystem broker (no server) under VAR_DIR; set
CELERY_BROKER_URL to use Redis or RabbitMQ."""

import logging
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")

app = Celery("mypcbench_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class _NoDefaultHostWarning:
    """The embedded filesystem broker has no host by design; kombu's warning that it "reverts to
    localhost" would otherwise be printed by every command that queues a task (import_results)."""

    def filter(self, record) -> bool:
        return not record.getMessage().startswith("No hostname was supplied")


logging.getLogger("kombu.connection").addFilter(_NoDefaultHostWarning())
