import msgspec, typing
