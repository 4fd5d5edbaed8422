"""Settings, read from the environment with embedded defaults (SQLite, local media, a
filesystem Celery broker). See README "Configuration" for every variable."""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from harness.judge import prices
from harness.judge.classify import ClassifierSettingError, parse_classifier_setting
from harness.judge.core import DEFAULT_CONCURRENCY

BASE_DIR = Path(__file__).resolve().parent.parent
# Everything the site writes at run time (database, media, broker queue) lives here by default.
VAR_DIR = Path(os.environ.get("MYPCBENCH_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "insecure-development-key-set-DJANGO_SECRET_KEY-in-production"
# Production refuses a weak key by Django's own rule (security.W009): 50+ characters, 5+ distinct ones.
if not DEBUG and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5):
    raise RuntimeError(
        "DJANGO_SECRET_KEY is too weak for DJANGO_DEBUG=0: it needs at least 50 characters "
        "and at least 5 distinct characters (Django's security.W009 rule)"
    )
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "ninja",  # serves the Swagger UI assets locally (no CDN)
    "leaderboard",
    "trajectories",
    "world",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "mypcbench_site.middleware.UploadGateMiddleware",  # uploads refused on their headers, body unread
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "mypcbench_site.middleware.ContentSecurityPolicyMiddleware",
    "mypcbench_site.middleware.FriendlyErrorPagesMiddleware",
    "mypcbench_site.middleware.DatabaseUnavailableMiddleware",
]
# The site's own error pages even with DEBUG on (bin/demo turns it on; off shows Django's debug pages).
MYPCBENCH_FRIENDLY_ERRORS = env_bool("MYPCBENCH_FRIENDLY_ERRORS", not DEBUG)

ROOT_URLCONF = "mypcbench_site.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "mypcbench_site.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{VAR_DIR / 'mypcbench.sqlite3'}",
        conn_max_age=60,
        # a kept connection is checked before each request's first query, so a restarted server is
        # reconnected to instead of failing that request
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # A file-backed test database lets a real Celery worker process see the test's rows.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30
    # Take the write lock when a transaction begins: a read that later upgrades to a write fails at
    # once with "database is locked" when a worker process writes at the same time (no busy wait).
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    DATABASES["default"]["TEST"] = {"NAME": os.environ.get("MYPCBENCH_TEST_SQLITE", str(VAR_DIR / "test.sqlite3"))}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", VAR_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request without it
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", VAR_DIR / "media"))
# MYPCBENCH_COMPRESSED_STATIC (bin/demo turns it on): with DEBUG on, serve the collected static files
# with their gzip copies (plotly.min.js: 4.8 MB, about 1.4 MB gzipped) instead of the source folders;
# run collectstatic after changing a static file.
COMPRESSED_STATIC = env_bool("MYPCBENCH_COMPRESSED_STATIC", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "whitenoise.storage.CompressedStaticFilesStorage"
        if COMPRESSED_STATIC
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
if DEBUG and COMPRESSED_STATIC:
    WHITENOISE_USE_FINDERS = False
    WHITENOISE_AUTOREFRESH = False
# Public figure pages are rebuilt when results change; while they change faster than that (a run being
# judged), the last complete page is served for at most this many seconds (mypcbench_site/page_cache.py).
# 0 shows every change at once, the default when developing.
MYPCBENCH_PAGE_REFRESH_SECONDS = float(os.environ.get("MYPCBENCH_PAGE_REFRESH_SECONDS", "0" if DEBUG else "10"))
# Media are served by Django itself only in DEBUG or when asked to (single-host demo).
SERVE_MEDIA = env_bool("MYPCBENCH_SERVE_MEDIA", DEBUG)
# Every /media/ request passes a permission check (mypcbench_site/media.py). With a front server,
# the bytes go out through its internal location under this prefix (nginx: X-Accel-Redirect).
MYPCBENCH_MEDIA_ACCEL_PREFIX = os.environ.get("MYPCBENCH_MEDIA_ACCEL_PREFIX", "")
# How long browsers and shared caches may keep published media: short, since a run can be unpublished
# (its files then stop being public at once, but a cache keeps what it holds for this long).
MYPCBENCH_MEDIA_PUBLIC_MAX_AGE = int(os.environ.get("MYPCBENCH_MEDIA_PUBLIC_MAX_AGE", "300"))
MYPCBENCH_MEDIA_SIGNED_SECONDS = int(os.environ.get("MYPCBENCH_MEDIA_SIGNED_SECONDS", "300"))
# Media in S3-compatible object storage (django-storages) when a bucket is named; the filesystem
# otherwise. Keys: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_S3_*) from the environment.
MYPCBENCH_S3_BUCKET = os.environ.get("MYPCBENCH_S3_BUCKET", "")
# Published objects are marked public (and lose the mark when their run is unpublished); turn off when
# a CDN with its own access to the bucket decides what is public.
MYPCBENCH_S3_MARK_PUBLIC = env_bool("MYPCBENCH_S3_MARK_PUBLIC", True)
# How an object is marked public: "acl" (a public-read ACL on the object itself) or "policy" (for buckets
# with ACLs disabled, AWS's default: a copy under public/, which the bucket policy of deploy/README.md
# lets anybody read; unpublishing deletes the copy).
MYPCBENCH_S3_PUBLIC_ACCESS = os.environ.get("MYPCBENCH_S3_PUBLIC_ACCESS", "acl")
if MYPCBENCH_S3_PUBLIC_ACCESS not in ("acl", "policy"):
    raise ImproperlyConfigured(
        f"MYPCBENCH_S3_PUBLIC_ACCESS is {MYPCBENCH_S3_PUBLIC_ACCESS!r} (expected acl or policy: policy for a bucket "
        "with ACLs disabled, see deploy/README.md)"
    )
# Where published media are fetched from instead of the bucket's own URL (a CDN), if anywhere.
MYPCBENCH_MEDIA_PUBLIC_BASE_URL = os.environ.get("MYPCBENCH_MEDIA_PUBLIC_BASE_URL", "")


def s3_media_storage(bucket: str, endpoint_url: str = "") -> dict:
    """The STORAGES entry for media in an S3-compatible bucket (tests point it at a local server)."""
    return {
        "BACKEND": "mypcbench_site.storage.MediaS3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": endpoint_url or None,
            "region_name": os.environ.get("AWS_S3_REGION_NAME", "us-east-1"),
            "addressing_style": os.environ.get("AWS_S3_ADDRESSING_STYLE", "path" if endpoint_url else "auto"),
            "signature_version": "s3v4",
            "file_overwrite": False,  # as on disk: a taken name gets a new one, nothing is replaced
            "default_acl": None,  # private until published
            "querystring_expire": MYPCBENCH_MEDIA_SIGNED_SECONDS,
            # what browsers and caches may keep of an object fetched by its URL: as briefly as the
            # media view's answers, since its run may be unpublished (its public copy keeps this too)
            "object_parameters": {"CacheControl": f"max-age={MYPCBENCH_MEDIA_PUBLIC_MAX_AGE}"},
        },
    }


if MYPCBENCH_S3_BUCKET:
    STORAGES["default"] = s3_media_storage(MYPCBENCH_S3_BUCKET, os.environ.get("AWS_S3_ENDPOINT_URL", ""))

# A cache shared by every web and worker process (the per-data-version figure caches) when a Redis
# URL is given; per-process memory otherwise.
MYPCBENCH_CACHE_URL = os.environ.get("MYPCBENCH_CACHE_URL") or os.environ.get("REDIS_URL", "")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": MYPCBENCH_CACHE_URL}
    if MYPCBENCH_CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

# Celery: no server needed by default (filesystem queue under VAR_DIR); Redis/RabbitMQ by URL.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL == "filesystem://":
    _queue_dir = VAR_DIR / "celery-queue"
    # kombu's filesystem transport lists these folders but never creates them.
    _queue_dir.mkdir(exist_ok=True)
    (VAR_DIR / "celery-processed").mkdir(exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(VAR_DIR / "celery-processed"),
        # Exchange bindings; kombu's default is a "control" folder in the working directory.
        "control_folder": str(VAR_DIR / "celery-control"),
        "store_processed": False,
        # How often an idle worker looks for new messages (kombu's default is 1 s).
        "polling_interval": float(os.environ.get("MYPCBENCH_BROKER_POLL_SECONDS", "1.0")),
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Redis hands a message taken by a worker that died (kill -9, a lost host) to another worker
    # once it has gone unacknowledged this long (kombu's default: an hour). Recovery does not wait for
    # it: work leases and the sweeper (trajectories/queue/leases.py) resend a dead host's work within
    # about two MYPCBENCH_WORK_LEASE_SECONDS. It stays long because a message of work still running,
    # or a retry waiting for its countdown, is handed out again when it expires; tasks are idempotent,
    # so that only costs repeated checks.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": float(os.environ.get("MYPCBENCH_BROKER_VISIBILITY_SECONDS", "3600")),
    }
elif CELERY_BROKER_URL.startswith(("amqp://", "amqps://", "pyamqp://")):
    # RabbitMQ confirms each message it has taken (publisher confirms): a message sent into a
    # connection the broker is closing (a restart) raises, and is sent again (trajectories/queue/),
    # instead of vanishing unnoticed.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
# Workers keep reconnecting to a broker that restarts, however long it takes (Celery stops after 100 tries).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "trajectories.tasks.run_trajectory": {"queue": "vm"},
    "trajectories.tasks.judge_*": {"queue": "judging"},
    "trajectories.tasks.*": {"queue": "media"},
}
# How ingest asks for screenshot derivatives: "queue" (a worker makes them), "inline" (now, in
# the ingesting process), "off" (not at all; backfill with `manage.py make_derivatives`).
MYPCBENCH_DERIVATIVES = os.environ.get("MYPCBENCH_DERIVATIVES", "queue")

# Our judge (trajectories/judging/our_judge.py). Keys come from the provider's environment variable
# (GEMINI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY). Prices: USD per million tokens.
MYPCBENCH_JUDGE = {
    "provider": os.environ.get("MYPCBENCH_JUDGE_PROVIDER", "google"),
    "model": os.environ.get("MYPCBENCH_JUDGE_MODEL", ""),  # "" = the provider's default
    "base_url": os.environ.get("MYPCBENCH_JUDGE_BASE_URL", ""),
    "temperature": float(os.environ.get("MYPCBENCH_JUDGE_TEMPERATURE", "0")),
    "max_images": int(os.environ.get("MYPCBENCH_JUDGE_MAX_IMAGES", "200")),  # 0 = every screenshot
    # the most calls in flight per provider and model: the judge follows the provider's quota up to it
    "concurrency": int(os.environ.get("MYPCBENCH_JUDGE_CONCURRENCY", str(DEFAULT_CONCURRENCY))),
    # tries of a call failing with a 5xx or a timeout; 429s wait within their own time budget instead
    "attempts": int(os.environ.get("MYPCBENCH_JUDGE_ATTEMPTS", "5")),
    "prompt_version": os.environ.get("MYPCBENCH_JUDGE_PROMPT_VERSION", ""),  # "" = mypc-judge-1; or paper-v1
}
# MYPCBENCH_JUDGE_PRICES (environment): a JSON price file whose entries replace the shipped, unverified
# estimates in harness/judge/prices.py; costs priced from the estimates are labelled "estimated".
try:
    MYPCBENCH_JUDGE_PRICES, MYPCBENCH_JUDGE_PRICES_CONFIGURED = prices.price_table()
except prices.PriceFileError as exc:
    raise ImproperlyConfigured(str(exc)) from None
# The LLM failure-mode classifier: "off" (the rules alone) or provider[:model][@base_url].
try:
    MYPCBENCH_FAILURE_CLASSIFIER = parse_classifier_setting(os.environ.get("MYPCBENCH_FAILURE_CLASSIFIER", "off"))
except ClassifierSettingError as exc:
    raise ImproperlyConfigured(str(exc)) from None
# Judge each trajectory as soon as it finishes (queue "judging"); off unless asked for.
MYPCBENCH_JUDGE_ON_FINISH = env_bool("MYPCBENCH_JUDGE_ON_FINISH", False)

# Evaluations launched from the admin (trajectories/evaluations/lifecycle.py): each worker on queue "vm" runs at
# most MYPCBENCH_VM_SLOTS trajectories at once (start it with that concurrency); a slot's lease lapses
# after MYPCBENCH_VM_LEASE_SECONDS without renewal, and its trajectory is then marked interrupted.
MYPCBENCH_VM_SLOTS = int(os.environ.get("MYPCBENCH_VM_SLOTS", "1"))
MYPCBENCH_VM_LEASE_SECONDS = float(os.environ.get("MYPCBENCH_VM_LEASE_SECONDS", "60"))
MYPCBENCH_VM_SLOT_WAIT_SECONDS = float(os.environ.get("MYPCBENCH_VM_SLOT_WAIT_SECONDS", "10"))
MYPCBENCH_VM_GUEST_ATTEMPTS = int(os.environ.get("MYPCBENCH_VM_GUEST_ATTEMPTS", "3"))  # clean restarts of a dead guest
MYPCBENCH_WORKER_NAME = os.environ.get("MYPCBENCH_WORKER_NAME", "")  # default: the host name
# Work leases (trajectories/queue/leases.py): every queued run, judge pass, upload check and derivatives
# job has a row until done. A worker doing it renews it every quarter of MYPCBENCH_WORK_LEASE_SECONDS;
# a message still unstarted after MYPCBENCH_QUEUE_PATIENCE_SECONDS (doubled at each resend) is sent
# again. Every worker runs the sweeper (MYPCBENCH_SWEEPER) every MYPCBENCH_SWEEP_SECONDS (0: a quarter of
# the shorter lease), so a lost host's work is resent within about two lease periods, on any broker.
MYPCBENCH_WORK_LEASE_SECONDS = float(os.environ.get("MYPCBENCH_WORK_LEASE_SECONDS", "60"))
MYPCBENCH_QUEUE_PATIENCE_SECONDS = float(os.environ.get("MYPCBENCH_QUEUE_PATIENCE_SECONDS", "120"))
MYPCBENCH_SWEEP_SECONDS = float(os.environ.get("MYPCBENCH_SWEEP_SECONDS", "0"))
MYPCBENCH_SWEEPER = env_bool("MYPCBENCH_SWEEPER", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}

# Accounts and author submissions (trajectories/submissions/uploads.py).
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "trajectories:submission_list"
LOGOUT_REDIRECT_URL = "leaderboard:home"
MYPCBENCH_UPLOAD_LIMITS = {
    "max_archive_bytes": int(os.environ.get("MYPCBENCH_UPLOAD_MAX_BYTES", 1024**3)),
    "max_total_bytes": int(os.environ.get("MYPCBENCH_UPLOAD_MAX_EXTRACTED_BYTES", 4 * 1024**3)),
    "max_files": int(os.environ.get("MYPCBENCH_UPLOAD_MAX_FILES", 20_000)),
    "max_depth": 12,
    "max_file_bytes": 64 * 1024**2,
    "max_ratio": 100.0,
}
# Decoded pixels of one upload's distinct screenshots together (why 8 per archive byte:
# trajectories/submissions/validation.py, upload_pixel_budget).
MYPCBENCH_UPLOAD_MAX_PIXELS = int(
    os.environ.get("MYPCBENCH_UPLOAD_MAX_PIXELS", 8 * MYPCBENCH_UPLOAD_LIMITS["max_archive_bytes"])
)
# How much lower the CPU priority of validating and storing an upload is than that of page views
# (a nice value for the upload's own thread; 0: in the request's thread, as the tests run it).
MYPCBENCH_UPLOAD_NICE = int(os.environ.get("MYPCBENCH_UPLOAD_NICE", 10))
# The share of one CPU a worker's checking and storing of an upload may use (1: all it can get). On a
# host shared with web processes, 0.1 keeps visitors' response times while an upload takes about 7x
# longer (bench/README.md, uploads); on a worker host of its own, 1.
_cpu_share = os.environ.get("MYPCBENCH_UPLOAD_CPU_SHARE", "1")
try:
    MYPCBENCH_UPLOAD_CPU_SHARE = float(_cpu_share)
except ValueError:
    MYPCBENCH_UPLOAD_CPU_SHARE = -1.0
if not 0 < MYPCBENCH_UPLOAD_CPU_SHARE <= 1:
    raise ImproperlyConfigured(
        f"MYPCBENCH_UPLOAD_CPU_SHARE is {_cpu_share!r} (expected a share of one CPU above 0 and at most 1, e.g. 0.1)"
    )
# Where uploads are checked and stored: "web" (by the web process, before it answers) or "worker" (the
# web process only receives the archive into media storage; a worker on the media queue checks it).
MYPCBENCH_UPLOAD_VALIDATION = os.environ.get("MYPCBENCH_UPLOAD_VALIDATION", "web")
MYPCBENCH_UPLOAD_TMP_DIR = VAR_DIR / "upload-tmp"
# Request bodies Django spools to disk go there too, not /tmp: a web process killed mid-upload leaves
# them where `manage.py sweep_media` finds them.
FILE_UPLOAD_TEMP_DIR = str(MYPCBENCH_UPLOAD_TMP_DIR)
MYPCBENCH_UPLOAD_TMP_DIR.mkdir(exist_ok=True)
# Behind a front proxy every request comes from the proxy's address: name the header it puts the
# client's address in (deploy/nginx: X-Real-IP, i.e. HTTP_X_REAL_IP), or the sign-up and log-in limits
# per address are shared by every visitor. Only set it when the proxy always overwrites that header.
MYPCBENCH_CLIENT_ADDRESS_HEADER = os.environ.get("MYPCBENCH_CLIENT_ADDRESS_HEADER", "")
MYPCBENCH_SIGNUPS_PER_ADDRESS = int(os.environ.get("MYPCBENCH_SIGNUPS_PER_ADDRESS", 10))
MYPCBENCH_SIGNUP_WINDOW_SECONDS = int(os.environ.get("MYPCBENCH_SIGNUP_WINDOW_SECONDS", 24 * 3600))
MYPCBENCH_LOGIN_FAILURES_PER_ACCOUNT = int(os.environ.get("MYPCBENCH_LOGIN_FAILURES_PER_ACCOUNT", 5))
MYPCBENCH_LOGIN_FAILURES_PER_ADDRESS = int(os.environ.get("MYPCBENCH_LOGIN_FAILURES_PER_ADDRESS", 20))
MYPCBENCH_LOGIN_WINDOW_SECONDS = int(os.environ.get("MYPCBENCH_LOGIN_WINDOW_SECONDS", 15 * 60))
MYPCBENCH_UPLOADS_PER_WINDOW = int(os.environ.get("MYPCBENCH_UPLOADS_PER_WINDOW", 20))
# every upload, accepted or refused (a refused archive is still read and checked)
MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW = int(
    os.environ.get("MYPCBENCH_UPLOAD_ATTEMPTS_PER_WINDOW", 3 * MYPCBENCH_UPLOADS_PER_WINDOW)
)
MYPCBENCH_API_CALLS_PER_WINDOW = int(os.environ.get("MYPCBENCH_API_CALLS_PER_WINDOW", 600))
MYPCBENCH_RATE_WINDOW_SECONDS = 3600

# Where visitors find the paper, the code and the data (shown on the home and leaderboard pages;
# an empty value hides the link), and what they are asked to cite.
MYPCBENCH_LINKS = (
    ("Paper", os.environ.get("MYPCBENCH_PAPER_URL", "https://arxiv.org/abs/2606.16748")),
    ("Code", os.environ.get("MYPCBENCH_CODE_URL", "")),
    ("Data", os.environ.get("MYPCBENCH_DATA_URL", "")),
)
MYPCBENCH_CITATION = """@misc{mypcbench2026,
  title         = {MyPCBench: a benchmark for personal computer-use agents},
  year          = {2026},
  eprint        = {2606.16748},
  archivePrefix = {arXiv},
}"""

# The contamination scan (trajectories/recording/contamination.py, docs/importing.md): steps reaching
# the benchmark's repository, paper, task files, other runs' answer files or this site, or copying a
# rubric criterion. None = the built-in patterns; a list of regular expressions or {"name", "kind",
# "pattern"} entries replaces them. The site's own host is added when set; suites may add their own
# ({suite slug: [patterns]}). A bad pattern is refused by `manage.py check`, naming it.
CONTAMINATION_PATTERNS = None
CONTAMINATION_SITE_HOST = os.environ.get("MYPCBENCH_SITE_HOST", "")
CONTAMINATION_SUITE_PATTERNS: dict = {}

# Production hardening; `manage.py check --deploy` passes with DJANGO_DEBUG=0 and HTTPS settings.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
