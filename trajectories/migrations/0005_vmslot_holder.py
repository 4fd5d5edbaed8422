"""VmSlot.holder: which process holds a slot's lease (host, pid, process start, token), so a worker
on the same host takes back the slot of a holder that died at once instead of after the lease."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("trajectories", "0004_updated_at_and_run_attempts"),
    ]

    operations = [
        migrations.AddField(
            model_name="vmslot",
            name="holder",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The process holding the lease (host|pid|process start|token), so a worker on the same "
                "host can tell that its holder died and take the slot back without waiting for the lease to lapse.",
                max_length=200,
            ),
        ),
    ]
