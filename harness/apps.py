"""The applications MyPCBench tasks involve: the 17 in-VM web apps (port, service name, the real
product each one imitates, its SimilarWeb category) and the desktop apps, with name normalisation.
"""

import re
from dataclasses import dataclass

WEB = "web"
DESKTOP = "desktop"


@dataclass(frozen=True)
class AppInfo:
    name: str  # display name as task files write it
    kind: str  # WEB or DESKTOP
    port: int | None = None
    internal_name: str = ""  # service / database name inside the VM (the persona file uses these)
    analogue: str = ""  # the real product it imitates
    category: str = ""  # SimilarWeb category
    subcategory: str = ""
    aliases: tuple[str, ...] = ()


_WEB = [
    (3001, "Gringotts", "vaultbank", "Chase Bank", "Finance", "Banking, Credit & Lending"),
    (3002, "BatBucks", "batbucks", "Robinhood", "Finance", "Investing"),
    (3003, "OddsMarket", "oddsmarket", "Polymarket", "Gambling", "Other"),
    (3004, "HooliChat", "buzzchat", "WhatsApp", "Computers, Electronics & Tech", "Telecommunications"),
    (3005, "HooliWork", "workbuzz", "Slack", "Computers, Electronics & Tech", "Programming & Developer Software"),
    (3006, "eTaxi", "etaxi", "Uber", "Travel & Tourism", "Ground Transportation"),
    (3007, "HangryDash", "hangrydash", "DoorDash", "Food & Drink", "Restaurants & Delivery"),
    (3008, "TableFind", "tablefind", "OpenTable", "Food & Drink", "Restaurants & Delivery"),
    (3009, "Kwik-E-Mart", "kwik-e-mart", "Instacart", "Ecommerce & Shopping", "Marketplace"),
    (3010, "HooliShop", "hoolishop", "Amazon", "Ecommerce & Shopping", "Marketplace"),
    (3011, "Dinoco Airlines", "dinoco-airlines", "Delta", "Travel & Tourism", "Air Travel"),
    (3012, "Cheskepdia", "cheskepdia", "Airbnb", "Travel & Tourism", "Accommodation & Hotels"),
    (3013, "SprintBoard", "sprintboard", "Jira", "Computers, Electronics & Tech", "Programming & Developer Software"),
    (3014, "LockedIn", "lockedin", "LinkedIn", "Computers, Electronics & Tech", "Social Media Networks"),
    (3015, "SpeedTax", "speedtax", "TurboTax", "Finance", "Accounting & Auditing"),
    (3016, "HooliMail", "mail", "Gmail", "Computers, Electronics & Tech", "Email"),
    (3017, "HooliCalendar", "hoolicalendar", "Google Calendar", "Computers, Electronics & Tech", "Productivity"),
]

APPS: tuple[AppInfo, ...] = tuple(
    AppInfo(name, WEB, port, internal, analogue, category, subcategory)
    for port, name, internal, analogue, category, subcategory in _WEB
) + (
    AppInfo("Files", DESKTOP, aliases=("nautilus", "file manager", "gnome files")),
    AppInfo("Thunar", DESKTOP),
    AppInfo("Firefox", DESKTOP, aliases=("mozilla firefox", "web browser")),
    AppInfo("LibreOffice", DESKTOP, aliases=("libre office", "soffice")),
    AppInfo("LibreOffice Calc", DESKTOP, aliases=("calc", "localc")),
    AppInfo("LibreOffice Writer", DESKTOP, aliases=("writer", "lowriter")),
    AppInfo("LibreOffice Impress", DESKTOP, aliases=("impress", "loimpress")),
    AppInfo("VS Code", DESKTOP, aliases=("vscode", "visual studio code", "code")),
    AppInfo("Terminal", DESKTOP, aliases=("gnome terminal", "terminal emulator")),
    AppInfo("Text Editor", DESKTOP, aliases=("gedit", "gnome text editor")),
)


def app_key(name: str) -> str:
    """Names compare without case, spaces or punctuation: "Kwik-E-Mart" == "kwik_e_mart"."""
    return re.sub(r"[\W_]+", "", name.casefold())


_BY_KEY: dict[str, AppInfo] = {}
for _app in APPS:
    for _alias in (_app.name, _app.internal_name, *_app.aliases):
        if _alias:
            _BY_KEY.setdefault(app_key(_alias), _app)


def normalise_app(name: str) -> AppInfo | None:
    """The registry entry a name (display, internal or alias, bucket folder) refers to, or None."""
    if not isinstance(name, str):
        return None
    return _BY_KEY.get(app_key(name))
