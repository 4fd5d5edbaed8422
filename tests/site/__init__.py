"""Tests of the site as a whole: pages, settings, deploy, backup, migrations, permissions over every URL."""
