"""Detection: what changed on the table and where cards lie, before anything is read.

- `activity.py`: `ActivityMonitor`, the per-frame door: hands on `Settled` changes with their arm traces.
- `light.py`: the one light-gain match (a lamp, a cloud) and how bright the light is.
- `changes.py`: foreground and motion against the reference, still pieces, `change_mask` of one place.
- `arms.py`: whose seat each arm pixel is, arm histories, traces and let-go.
- `cloth.py`: the cloth's colour (glare included) and what is not cloth.
- `outlines.py`: the one card-outline finder: on a top view (`find_cards`, `refine`) and in a photo
  (`card_in_photo`, the panel's enrollment).

Every threshold is a field of `config.detect.DetectConfig`, handed in.
"""
