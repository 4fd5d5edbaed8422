"""Text composition for the world's messages: person-to-person mail, chats and work messages composed per
contact, relationship, topic and situation from phrase pools (``voices`` for people, ``workplace`` for
HooliWork), the chat lines (``conversation``), the mail bodies (``letters``), the files people attach
(``attachments``) and money talk (``money_talk``). Deterministic: every choice comes from the caller's
keyed RNG.
"""
