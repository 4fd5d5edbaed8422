"""The service mail a shop or ride app sends after each event: one layout per service and kind, filled with
what differs per event the way a real receipt does (the driver, car and plate, the trip's time and distance,
the courier and where the food was left, the carrier and delivery window, a footer that changes).

Every varying part is drawn from the event's own code (``stable_seed``), so the app's tables (drivers,
receipts, shipments) and the mail agree without sharing an RNG, and a build stays byte-identical.
"""

import datetime as dt

from ..core import stable_id, stable_seed

# eTaxi's car types: (name, seats, base fare, per mile, per minute).
CAR_TYPES = [
    ("Standard", 4, 3.25, 1.60, 0.30),
    ("Comfort", 4, 4.50, 2.05, 0.38),
    ("XL", 6, 5.50, 2.60, 0.45),
    ("Black", 4, 9.00, 3.75, 0.65),
]
CARS = [
    "Toyota Camry",
    "Honda Accord",
    "Hyundai Sonata",
    "Nissan Altima",
    "Toyota Prius",
    "Honda Odyssey",
    "Ford Explorer",
    "Chevy Malibu",
    "Kia Optima",
    "Subaru Outback",
    "Toyota RAV4",
    "Ford Fusion",
]
COLOURS = ["Silver", "Black", "White", "Grey", "Blue", "Red", "Dark green"]
RIDE_FOOTERS = [
    "Commuting most days? Ride Pass saves 15% on every trip for $9.99 a month.",
    "Refer a friend from the Invite tab and you both get $5 off your next ride.",
    "Schedule tomorrow's ride tonight: tap Reserve in the app.",
    "Left something behind? Contact your driver from Trip history within 24 hours.",
    "Airport run coming up? Book an XL for the luggage.",
    "Tip your driver any time in the next 72 hours from Trip history.",
    "New: split a fare with a coworker right from the ride screen.",
    "Rate your driver to help us keep rides great.",
    "eTaxi Comfort: newer cars, more legroom, from a few dollars more.",
    "Your receipt is also saved in the app under Account > Receipts.",
]
COURIERS = [
    "Marcus",
    "Jenna",
    "DeShawn",
    "Alyssa",
    "Tom",
    "Brianna",
    "Kevin R.",
    "Sofia",
    "Tyler",
    "Mei",
    "Andre",
    "Kayla",
    "Victor",
    "Nadia",
    "Chris",
    "Lena",
    "Jamal",
    "Erin",
    "Hector",
    "Paige",
]
FOOD_DROPOFFS = {
    "lunch": [
        "Handed to you at the reception desk.",
        "Left with the receptionist at the front desk.",
        "Handed to you in the lobby.",
        "Left at the front desk, suite 200.",
        "Handed to a coworker at the door.",
    ],
    "dinner": [
        "Left at your door.",
        "Handed to you.",
        "Left at your door. Photo attached in the app.",
        "Left on the doorstep, knocked twice.",
        "Handed to you at the building entrance.",
        "Left by the mailboxes as requested.",
    ],
}
FOOD_FOOTERS = [
    "HangryDash+ members pay $0 delivery on orders over $12.",
    "Hungry again tomorrow? Reorder in two taps from Orders.",
    "Something missing? Report it from the order page and we'll make it right.",
    "Try pickup next time: no delivery fee, no wait.",
    "Rate your order to help other hungry people decide.",
    "Save your favourites: tap the heart on any restaurant.",
    "Group order? Share a cart link and everyone adds their own.",
    "Your tip goes 100% to your courier.",
]
CARRIERS = ["UPS", "USPS", "FedEx", "HooliShip"]
SHIP_WINDOWS = ["by 8 PM", "8 AM - 12 PM", "12 PM - 4 PM", "4 PM - 8 PM", "by end of day"]
SHOP_FOOTERS = [
    "Track your package any time from Your Orders.",
    "Not home? Choose a safe place or a pickup locker from the tracking page.",
    "Returns are free within 30 days for most items.",
    "Manage deliveries and skip a month from Subscribe & Save.",
    "Questions about your order? Reply to this email or visit Help.",
]


def _pick(pool, *key):
    return pool[stable_seed(*key) % len(pool)]


def driver_car(name: str) -> tuple[str, str]:
    """A driver's car ("Silver Toyota Camry") and Pennsylvania plate, fixed per driver."""
    car = f"{_pick(COLOURS, 'colour', name)} {_pick(CARS, 'car', name)}"
    return car, f"PA {stable_id(name, length=3).upper()}-{1000 + stable_seed('plate', name) % 9000}"


def ride_minutes(code: str) -> int:
    """How long a ride took, from its code (8 to 25 minutes)."""
    return 8 + stable_seed("minutes", code) % 18


def ride_miles(fare: float, car_type: str, minutes: int) -> float:
    """The distance a fare pays for at the car type's rates, after its base fare and minutes."""
    kind = next((t for t in CAR_TYPES if t[0] == car_type), CAR_TYPES[0])
    return max(round((fare - kind[2] - kind[4] * minutes) / kind[3], 1), 0.5)


def delivery_delay(code: str) -> int:
    """Minutes a delivery ran behind its usual pace (0 to 8), from its order number."""
    return stable_seed("late", code) % 9


def _clock(when: dt.datetime) -> str:
    return when.strftime("%I:%M %p").lstrip("0")


def ride_receipt(ride: dict, code: str, total: float, rider: str) -> str:
    """eTaxi's receipt: route with times, distance, driver and car, fare, tip, a rating prompt and a footer."""
    when: dt.datetime = ride["when"]
    minutes = ride_minutes(code)
    miles = ride_miles(ride["fare"], ride.get("car_type", "Standard"), minutes)
    car, plate = driver_car(ride["driver"])
    pickup_at = when + dt.timedelta(minutes=6)
    return (
        f"Thanks for riding, {rider.split()[0]}.\n\n"
        f"{when.strftime('%A, %B %d, %Y')} - eTaxi {ride.get('car_type', 'Standard')}\n"
        f"Pickup    {_clock(pickup_at)}  {ride['pickup']}\n"
        f"Drop-off  {_clock(pickup_at + dt.timedelta(minutes=minutes))}  {ride['dropoff']}\n"
        f"{miles} mi, {minutes} min\n\n"
        f"Your driver: {ride['driver']}, {car}, {plate}\n\n"
        f"Trip fare  ${ride['fare']:.2f}\n"
        f"Tip        ${ride.get('tip', 0):.2f}\n"
        f"Total: ${total:,.2f} (debit card)\n"
        f"Reference: {code}\n\n"
        f"How was your ride with {ride['driver'].split()[0]}? Rate it in the app.\n"
        f"{_pick(RIDE_FOOTERS, 'footer', code)}\n"
    )


def food_receipt(order: dict, code: str, total: float) -> str:
    """HangryDash's receipt: the basket with prices, subtotal and tip, the courier and where it was left."""
    when: dt.datetime = order["when"]
    meal = "lunch" if when.hour < 15 else "dinner"
    courier = _pick(COURIERS, "courier", code)
    subtotal = sum(i["price"] * i.get("quantity", 1) for i in order["items"])
    lines = [f"{i.get('quantity', 1)} x {i['item']}  ${i['price'] * i.get('quantity', 1):.2f}" for i in order["items"]]
    return (
        f"Your order from {order['restaurant']} was delivered.\n"
        f"{courier} delivered it at {_clock(when + dt.timedelta(minutes=41 + delivery_delay(code)))}. "
        f"{_pick(FOOD_DROPOFFS[meal], 'dropoff', code)}\n\n" + "\n".join(lines) + "\n\n"
        f"Subtotal  ${subtotal:,.2f}\n"
        f"Tip for {courier}  ${order.get('tip', 0):,.2f}\n"
        f"Total: ${total:,.2f}\n"
        f"Reference: {code}\n\n"
        f"How was {order['restaurant']}? Rate your order and {courier}'s delivery in the app.\n"
        f"{_pick(FOOD_FOOTERS, 'footer', code)}\n"
    )


def carrier_for(order_id: int) -> str:
    """The carrier HooliShop ships an order with."""
    return CARRIERS[order_id % len(CARRIERS)]


def tracking_number(carrier: str, order_number: str) -> str:
    return f"{carrier[:2].upper()}{stable_id(order_number, length=10).upper()}"


def shipment_receipt(order: dict, code: str, total: float, order_id: int, subscription: bool) -> str:
    """HooliShop's order-and-shipping mail: the item, the carrier and tracking number, the delivery window."""
    when: dt.datetime = order["when"]
    carrier = carrier_for(order_id)
    arriving = when.date() + dt.timedelta(days=2 + stable_seed("eta", code) % 3)
    head = (
        f"Your Subscribe & Save delivery of {order['item']} is on its way."
        if subscription
        else f"Thanks for your order! {order['item']} is on its way."
    )
    return (
        f"{head}\n\n"
        f"1 x {order['item']}  ${order['price']:.2f}\n"
        f"Total: ${total:,.2f}\n"
        f"Order {code}\n\n"
        f"Shipping with {carrier}, tracking {tracking_number(carrier, code)}\n"
        f"Arriving {arriving.strftime('%A, %B %d')}, {_pick(SHIP_WINDOWS, 'window', code)}\n\n"
        f"{_pick(SHOP_FOOTERS, 'footer', code)}\n"
    )
