"""The teaching screens of the terminal UI (the engine's workshop room): the guided tour and the exercises."""
