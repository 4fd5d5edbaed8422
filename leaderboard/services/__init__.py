"""Write-side business logic for the catalog (services, in the HackSoft sense): importers and the like."""
