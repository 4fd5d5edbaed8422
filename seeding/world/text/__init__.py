"""Text composition for the world's messages: person-to-person mail, chats and work messages composed per
contact, relationship, topic and situation from phrase pools (``voices``), the chat lines (``conversation``)
and the mail bodies (``letters``). Deterministic: every choice comes from the caller's keyed RNG.
"""
