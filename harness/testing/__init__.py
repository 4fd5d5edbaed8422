"""Test-only builders, apart from production code: the QEMU test guest and the Docker test image
that let the qemu and docker backends run for real in tests. Uses the harness only; never Django."""
