"""Tests of seeding/ (Django-free): the persona world build and the desktop guest's demo apps."""
