"""The teaching side: the guided tour, the exercises, the index-building stepper and the Kaitai/ImHex templates.
Built on the read side (may import every room below it); writes only the template files a user asks for.

    tour_steps        the tour in order: STEP_IDS, TITLES, tour_steps()
    tour_targets      the step model: what a step points at, TourStep, step_view, cursor_offset
    tour_records      the steps about the store directory, records, segment ends, ids, recovery and rebuild
    tour_queues       the steps about consume queues, delayed messages and transactions
    tour_index        the steps about index files: a key's chain, the header, a real hash collision
    tour              what the steps share: system topics, search bounds, the Context of look-ups
    exercises         KINDS and generate()
    exercise_model    an Exercise, its check and their JSON views
    exercise_answers  reading answers tolerantly
    exercise_facts    the store sample every kind starts from, and how a seed picks a variant
    exercise_index    the kinds about the index and the ids
    exercise_queues   the kinds about the commitlog and the consume queues
    teaching          the index-building stepper
    templates/        Kaitai Struct and ImHex templates of the formats
"""
