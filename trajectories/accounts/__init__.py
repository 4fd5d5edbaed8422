"""Accounts: sign-up and log-in (throttled: `views`), authors' API tokens (`tokens`) and the per-account
and per-address rate limits (`ratelimits`: log-ins, sign-ups, API calls, uploads). Uses the models and
Django's auth only; submissions (the API's token check, the upload limits) and the project's URLs use it."""
